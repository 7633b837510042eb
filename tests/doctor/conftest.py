"""The doctor's tests: the corpus scripts are programs to run under the doctor, not test modules."""

collect_ignore_glob = ["scripts/*"]
