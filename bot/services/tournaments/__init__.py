"""Tournaments: a server's Swiss, round-robin or knockout event in any of the three games. Its pairings
(:mod:`.pairing`) and its scoring and standings (:mod:`.standings`) are pure functions of what was played,
so the same event always pairs and ranks the same way and anyone can check it by hand."""
