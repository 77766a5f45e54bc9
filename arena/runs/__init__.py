"""Running prompts through the engine: requests and results, the runner, progress and estimates, the token view."""
