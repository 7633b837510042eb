# The corpus holds learners' solutions: files to grade, not modules to import or doctest.
collect_ignore_glob = ["corpus/*.py"]
