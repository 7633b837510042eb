"""pytest from the repository's root: the engine is imported whole, as a user imports it, before
any of its modules is collected for its doctests.

pytest's importlib mode runs the file of a module that is not imported yet a second time, as a
fresh module put in its place (``pytest src/ownership/core/op_registry.py tests/...``). The seams that
``import ownership`` fills (:mod:`ownership.installation`) would be empty in such a copy; with the
package imported first, pytest finds every module imported and runs none again.
"""

import ownership  # noqa: F401
