"""The base the Tensor's declared methods are typed on: at run time, ``object``; mypy reads the
generated stub ``declared_methods.pyi`` instead (:func:`ownership.ops.method_stub.stub`)."""

DeclaredMethods = object
