"""Pure helpers every layer above the engines may use: messages and languages, panels, text, clock,
locks, ratings. No Discord, no store."""
