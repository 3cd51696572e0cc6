"""The table runtime: one actor per loaded table, and the registry that loads, recovers and unloads them.

`TableActor` serialises a table's commands (`commands`), runs the pure step (`app.table`), stores it
through `app.server.storage` and publishes it; `registry` finds or loads a table's actor; `robot` runs
the solver robot off the event loop; `robot_seats` seats robot players that act through the same actor.
"""
