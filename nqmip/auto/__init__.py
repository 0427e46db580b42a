"""``method="auto"``: the anytime portfolio that proves where it can and keeps improving
until the deadline (:mod:`.portfolio`)."""
