"""Who may come in: invite codes, Hugging Face accounts, browser sessions, client addresses, backoff on guessed secrets."""
