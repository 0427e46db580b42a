"""``method="auto"``: the anytime portfolio that proves where it can and keeps improving
until the deadline: its policy (:mod:`.policy`), the state of a call (:mod:`.portfolio`)
and one function per plan (:mod:`.plans`)."""
