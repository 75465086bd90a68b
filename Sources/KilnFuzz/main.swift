// Placeholder; the CLI helper writes the fuzz entry point.
