"""The base the Tensor's declared methods are typed on: at run time, ``object``.

mypy reads the stub ``declared_methods.pyi`` beside this file instead, generated from the
declarations by :func:`ownership.ops.method_stub.stub`, whose ``DeclaredMethods`` gives each
declared method's signature; at run time :func:`ownership.core.surface.install` sets the methods
on the Tensor itself.
"""

DeclaredMethods = object
