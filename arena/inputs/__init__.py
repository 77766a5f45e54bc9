"""What people type and give: prompts, their language, clean text, whole numbers, the summary task's paper."""
