"""The Discord edge: the client, the click router, the table controller, delivery of panels as
Discord messages. The only layer that imports discord."""
