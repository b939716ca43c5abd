# A location naming no file is refused.
# command: compile
# expect-exit: 1
# expect: external data file 'nothere\.bin' does not exist
from _lib import external_model, save

save(external_model([("location", "nothere.bin")]))
