# A '../' location (the CVE-2022-25882 class) is refused.
# command: compile
# expect-exit: 1
# expect: location '\.\./w\.bin' contains '\.\.'
from _lib import external_model, save

save(external_model([("location", "../w.bin")]))
