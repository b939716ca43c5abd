# An absolute location is refused.
# command: compile
# expect-exit: 1
# expect: location '/etc/passwd' is absolute
from _lib import external_model, save

save(external_model([("location", "/etc/passwd")]))
