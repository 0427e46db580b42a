"""The commands: ``solve-weighted`` (:mod:`.solve`), ``nqmip-count`` (:mod:`.count`), their
shared parser (:mod:`.parser`) and the terminal report (:mod:`.report`)."""
