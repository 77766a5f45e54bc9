"""Loading the model and what the machine gives it: the model setting, hardware, memory, ZeroGPU, the compute thread."""
