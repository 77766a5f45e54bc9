"""Files in and out: exports (CSV, JSONL, votes, preference pairs), their one table of columns, outside ratings imported."""
