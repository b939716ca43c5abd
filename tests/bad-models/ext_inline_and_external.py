# A tensor with both inline data and external data is refused (which one holds?).
# command: compile
# expect-exit: 1
# expect: initializer 'w': holds inline data and external data
from _lib import external_model, save, write_side_file

write_side_file("w.bin", b"\0" * 16)
m = external_model([("location", "w.bin")])
m.graph.initializer[0].float_data.extend([1.0, 2.0, 3.0, 4.0])
save(m)
