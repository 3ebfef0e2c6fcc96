"""The operators (gradient, jacobian, hessian, ...) and their preparations."""
