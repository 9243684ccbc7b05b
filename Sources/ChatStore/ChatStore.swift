// ChatStore module.
