"""The graph: nodes, saved tensors, the view history, the backward loop and its hooks."""
