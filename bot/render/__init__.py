"""Channel and DM text rendered from engine events and views; no Discord objects, so it is easy to test."""
