"""The programs learners meet before and after the unit, as the tutorials write them, under both
engines: PyTorch's "What is torch.nn really?" (its from-scratch stage: a hand-written
``log_softmax`` and nll with ``input[range(n), target]``, the accuracy with ``argmax``, the manual
SGD loop ``weights -= weights.grad * lr`` under ``no_grad``; then ``nn.Module``, ``nn.Linear``
and ``optim``), "Learning PyTorch with Examples" (the polynomial fit over a ``linspace``, by hand
and with autograd), "Saving and loading models", "Zeroing out gradients", and D2L's linear
regression and MLP from scratch (``torch.max(X, zeros)`` as relu, ``keepdims=True``,
``argmax(axis=1)``, ``.type(y.dtype)``).

Adapted only where a tutorial downloads data or draws random numbers: the data and the initial
weights are fixed arrays (the same for both engines), the sizes small; convolutions become
linear layers. Every value a tutorial prints is returned and compared.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from support.differential import same


def _fixed(t: Any, *shape: int, seed: int, scale: float = 1.0) -> Any:
    """A float32 tensor of fixed values (the tutorials' ``torch.randn``), the same in both."""
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * scale
    return t.tensor(values.tolist())


def _classes(t: Any, n: int, k: int, seed: int) -> Any:
    """``n`` fixed class labels below ``k`` (int64)."""
    return t.tensor(np.random.default_rng(seed).integers(0, k, n).tolist())


# ---------------------------------------------------------------- What is torch.nn really?
def nn_really_from_scratch(t: Any) -> Any:
    printed: list[Any] = []
    x_train, y_train = _fixed(t, 64, 12, seed=1), _classes(t, 64, 4, seed=2)
    n, c = x_train.shape

    weights = _fixed(t, 12, 4, seed=3) / math.sqrt(12)
    weights.requires_grad_()
    bias = t.zeros(4, requires_grad=True)

    def log_softmax(x: Any) -> Any:
        return x - x.exp().sum(-1).log().unsqueeze(-1)

    def model(xb: Any) -> Any:
        return log_softmax(xb @ weights + bias)

    def nll(input: Any, target: Any) -> Any:
        return -input[range(target.shape[0]), target].mean()

    loss_func = nll

    def accuracy(out: Any, yb: Any) -> Any:
        preds = t.argmax(out, dim=1)
        return (preds == yb).float().mean()

    bs = 16
    xb, yb = x_train[0:bs], y_train[0:bs]
    preds = model(xb)
    printed += [(n, c), preds[0], preds.shape, loss_func(preds, yb), accuracy(preds, yb)]

    lr, epochs = 0.5, 2
    for _epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)

            loss.backward()
            with t.no_grad():
                weights -= weights.grad * lr
                bias -= bias.grad * lr
                weights.grad.zero_()
                bias.grad.zero_()
    printed += [loss_func(model(xb), yb), accuracy(model(xb), yb), weights._version]
    return printed


def nn_really_refactored(t: Any) -> Any:
    """The same training, then ``F.cross_entropy``, ``nn.Module`` with ``nn.Parameter``,
    ``nn.Linear`` and ``optim.SGD``."""
    printed: list[Any] = []
    functional, nn, optim = t.nn.functional, t.nn, t.optim
    x_train, y_train = _fixed(t, 48, 12, seed=4), _classes(t, 48, 4, seed=5)
    n, bs, lr = x_train.shape[0], 16, 0.5
    loss_func = functional.cross_entropy

    class MnistLogistic(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.weights = nn.Parameter(_fixed(t, 12, 4, seed=6) / math.sqrt(12))
            self.bias = nn.Parameter(t.zeros(4))

        def forward(self, xb: Any) -> Any:
            return xb @ self.weights + self.bias

    class MnistLinear(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(12, 4)
            with t.no_grad():
                self.lin.weight.copy_(_fixed(t, 4, 12, seed=7) / math.sqrt(12))
                self.lin.bias.zero_()

        def forward(self, xb: Any) -> Any:
            return self.lin(xb)

    def fit_by_hand(model: Any) -> None:
        for _epoch in range(2):
            for i in range((n - 1) // bs + 1):
                xb, yb = x_train[i * bs : i * bs + bs], y_train[i * bs : i * bs + bs]
                loss = loss_func(model(xb), yb)
                loss.backward()
                with t.no_grad():
                    for p in model.parameters():
                        p -= p.grad * lr
                    model.zero_grad()

    for build in (MnistLogistic, MnistLinear):
        model = build()
        printed.append(loss_func(model(x_train[:bs]), y_train[:bs]))
        fit_by_hand(model)
        printed.append(loss_func(model(x_train[:bs]), y_train[:bs]))

    model = MnistLinear()
    opt = optim.SGD(model.parameters(), lr=lr)
    for _epoch in range(2):
        for i in range((n - 1) // bs + 1):
            xb, yb = x_train[i * bs : i * bs + bs], y_train[i * bs : i * bs + bs]
            loss = loss_func(model(xb), yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
    printed += [loss_func(model(x_train), y_train), model.lin.weight.grad]
    return printed


# ---------------------------------------------------------------- Learning PyTorch with Examples
def polynomial_by_hand(t: Any) -> Any:
    x = t.linspace(-math.pi, math.pi, 2000, dtype=t.float32)
    y = t.sin(x)
    a, b, c, d = (v.reshape(()) for v in _fixed(t, 4, seed=8))
    learning_rate = 1e-6
    printed: list[Any] = []
    for step in range(100):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum().item()
        if step % 25 == 24:
            printed.append((step, loss))
        grad_y_pred = 2.0 * (y_pred - y)
        grad_a = grad_y_pred.sum()
        grad_b = (grad_y_pred * x).sum()
        grad_c = (grad_y_pred * x**2).sum()
        grad_d = (grad_y_pred * x**3).sum()
        a -= learning_rate * grad_a
        b -= learning_rate * grad_b
        c -= learning_rate * grad_c
        d -= learning_rate * grad_d
    printed.append(f"Result: y = {a.item():.3f} + {b.item():.3f} x + {c.item():.3f} x^2")
    return printed


def polynomial_with_autograd(t: Any) -> Any:
    dtype = t.float
    x = t.linspace(-math.pi, math.pi, 2000, dtype=dtype)
    y = t.sin(x)
    a, b, c, d = (v.reshape(()).requires_grad_() for v in _fixed(t, 4, seed=9).unbind())
    learning_rate = 1e-6
    printed: list[Any] = []
    for step in range(100):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum()
        if step % 25 == 24:
            printed.append((step, loss.item()))
        loss.backward()
        with t.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None
    printed += [a, b, c, d, a._version]
    return printed


# ---------------------------------------------------------------- D2L, from scratch
def d2l_linear_regression(t: Any) -> Any:
    true_w, true_b = t.tensor([2, -3.4]), 4.2
    features = _fixed(t, 100, 2, seed=10)
    labels = (t.matmul(features, true_w) + true_b + _fixed(t, 100, seed=11, scale=0.01)).reshape(
        (-1, 1)
    )
    printed: list[Any] = [features[0], labels[0]]

    def data_iter(batch_size: int, features: Any, labels: Any) -> Any:
        num_examples = len(features)
        indices = list(range(num_examples))
        indices = indices[::-1]  # the tutorial's random.shuffle, fixed
        for i in range(0, num_examples, batch_size):
            batch_indices = t.tensor(indices[i : min(i + batch_size, num_examples)])
            yield features[batch_indices], labels[batch_indices]

    w = _fixed(t, 2, 1, seed=12, scale=0.01).requires_grad_()
    b = t.zeros(1, requires_grad=True)

    def linreg(X: Any, w: Any, b: Any) -> Any:
        return t.matmul(X, w) + b

    def squared_loss(y_hat: Any, y: Any) -> Any:
        return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2

    def sgd(params: Any, lr: float, batch_size: int) -> None:
        with t.no_grad():
            for param in params:
                param -= lr * param.grad / batch_size
                param.grad.zero_()

    lr, num_epochs, batch_size = 0.03, 3, 10
    net, loss = linreg, squared_loss
    for epoch in range(num_epochs):
        for X, y in data_iter(batch_size, features, labels):
            ell = loss(net(X, w, b), y)
            ell.sum().backward()
            sgd([w, b], lr, batch_size)
        with t.no_grad():
            train_l = loss(net(features, w, b), labels)
            printed.append((epoch + 1, float(train_l.mean())))
    printed += [true_w - w.reshape(true_w.shape), true_b - b]
    return printed


def d2l_mlp(t: Any) -> Any:
    nn = t.nn
    num_inputs, num_outputs, num_hiddens, sigma = 16, 4, 8, 0.1

    def relu(X: Any) -> Any:
        a = t.zeros_like(X)
        return t.max(X, a)

    def softmax(X: Any) -> Any:
        X_exp = t.exp(X)
        partition = X_exp.sum(1, keepdims=True)
        return X_exp / partition

    def cross_entropy(y_hat: Any, y: Any) -> Any:
        return -t.log(y_hat[list(range(len(y_hat))), y]).mean()

    def accuracy(y_hat: Any, y: Any) -> float:
        if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
            y_hat = y_hat.argmax(axis=1)
        cmp = y_hat.type(y.dtype) == y
        return float(cmp.type(y.dtype).sum())

    class MLPScratch(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.W1 = nn.Parameter(_fixed(t, num_inputs, num_hiddens, seed=13) * sigma)
            self.b1 = nn.Parameter(t.zeros(num_hiddens))
            self.W2 = nn.Parameter(_fixed(t, num_hiddens, num_outputs, seed=14) * sigma)
            self.b2 = nn.Parameter(t.zeros(num_outputs))

        def forward(self, X: Any) -> Any:
            X = X.reshape((-1, num_inputs))
            H = relu(t.matmul(X, self.W1) + self.b1)
            return t.matmul(H, self.W2) + self.b2

    X = _fixed(t, 32, 4, 4, seed=15)
    X[0] = 0.0  # an input whose hidden units all tie with relu's zeros (b1 starts at zero)
    X[9] = 0.0
    y = _classes(t, 32, num_outputs, seed=16)
    model = MLPScratch()
    optimizer = t.optim.SGD(model.parameters(), lr=0.1)
    printed: list[Any] = [relu(t.tensor([-1.0, 0.0, 2.0]))]
    for _epoch in range(3):
        for i in range(0, 32, 8):
            y_hat = softmax(model(X[i : i + 8]))
            ell = cross_entropy(y_hat, y[i : i + 8])
            optimizer.zero_grad()
            ell.backward()
            optimizer.step()
        with t.no_grad():
            printed.append((ell, accuracy(model(X), y) / len(y)))
    printed += [model.W1.grad, model.b1.grad]
    return printed


# ---------------------------------------------------------------- recipes
def saving_and_loading(t: Any, tmp: Path) -> Any:
    nn, functional = t.nn, t.nn.functional

    class TheModelClass(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = nn.Linear(12, 8)
            self.fc2 = nn.Linear(8, 4)

        def forward(self, x: Any) -> Any:
            return self.fc2(functional.relu(self.fc1(x)))

    def fixed_model() -> Any:
        model = TheModelClass()
        model.load_state_dict(
            {
                name: _fixed(t, *p.shape, seed=20 + i)
                for i, (name, p) in enumerate(model.state_dict().items())
            }
        )
        return model

    model = fixed_model()
    optimizer = t.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    printed: list[Any] = ["Model's state_dict:"]
    for param_tensor in model.state_dict():
        printed.append((param_tensor, model.state_dict()[param_tensor].size()))
    x, target = _fixed(t, 5, 12, seed=30), _classes(t, 5, 4, seed=31)
    loss = functional.cross_entropy(model(x), target)
    loss.backward()
    optimizer.step()
    printed.append(optimizer.state_dict())

    path = tmp / f"model-{t.__name__}.pt"
    t.save(model.state_dict(), path)
    loaded = TheModelClass()
    printed.append(str(loaded.load_state_dict(t.load(path, weights_only=True))))
    loaded.eval()
    printed.append(loaded(x))

    t.save({"epoch": 1, "model_state_dict": model.state_dict(),
            "optimizer_state_dict": optimizer.state_dict(), "loss": loss}, path)  # fmt: skip
    resumed, resumed_opt = TheModelClass(), None
    resumed_opt = t.optim.SGD(resumed.parameters(), lr=0.001, momentum=0.9)
    checkpoint = t.load(path, weights_only=True)
    resumed.load_state_dict(checkpoint["model_state_dict"])
    resumed_opt.load_state_dict(checkpoint["optimizer_state_dict"])
    epoch, loss = checkpoint["epoch"], checkpoint["loss"]
    resumed.train()
    functional.cross_entropy(resumed(x), target).backward()
    resumed_opt.step()
    printed += [epoch, loss, resumed.fc1.weight, resumed_opt.state_dict()["state"][0]]

    buffer = io.BytesIO()  # saved to a file object, loaded after a seek
    t.save(model.state_dict(), buffer)
    buffer.seek(0)
    printed.append(t.load(buffer, map_location="cpu")["fc2.bias"])
    return printed


def zeroing_out_gradients(t: Any) -> Any:
    nn, functional, optim = t.nn, t.nn.functional, t.optim

    class Net(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = nn.Linear(12, 10)
            self.fc2 = nn.Linear(10, 6)
            self.fc3 = nn.Linear(6, 3)

        def forward(self, x: Any) -> Any:
            x = functional.relu(self.fc1(x))
            x = functional.relu(self.fc2(x))
            return self.fc3(x)

    net = Net()
    net.load_state_dict(
        {
            name: _fixed(t, *p.shape, seed=40 + i, scale=0.5)
            for i, (name, p) in enumerate(net.state_dict().items())
        }
    )
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
    inputs_all, labels_all = _fixed(t, 40, 12, seed=50), _classes(t, 40, 3, seed=51)
    printed: list[Any] = []
    for epoch in range(2):
        running_loss = 0.0
        for i in range(10):
            inputs, labels = inputs_all[i * 4 : i * 4 + 4], labels_all[i * 4 : i * 4 + 4]
            optimizer.zero_grad()
            outputs = net(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
            if i % 5 == 4:
                printed.append((epoch + 1, i + 1, running_loss / 5))
                running_loss = 0.0
    printed += [net.fc1.weight.grad, net.fc3.bias]
    return printed


PROGRAMS = {
    "What is torch.nn really? from scratch": nn_really_from_scratch,
    "What is torch.nn really? refactored": nn_really_refactored,
    "Learning PyTorch with Examples: numpy-style": polynomial_by_hand,
    "Learning PyTorch with Examples: autograd": polynomial_with_autograd,
    "D2L linear regression from scratch": d2l_linear_regression,
    "D2L MLP from scratch": d2l_mlp,
    "Zeroing out gradients": zeroing_out_gradients,
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_tutorial_prints_the_same_under_both_engines(name: str) -> None:
    same(PROGRAMS[name])


def test_saving_and_loading_models_prints_the_same_under_both_engines(tmp_path: Path) -> None:
    same(lambda t: saving_and_loading(t, tmp_path))
