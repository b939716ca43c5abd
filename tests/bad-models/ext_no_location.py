# External data without a location is refused.
# command: compile
# expect-exit: 1
# expect: external data has no 'location'
from _lib import external_model, save

save(external_model([("offset", "0")]))
