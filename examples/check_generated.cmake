# Fails when the example CNN's generated files differ from the copies checked in under
# examples/generated/ (issue 34: a newcomer reads real generated code there, and a change to the
# emitter or the runtime shows up as a diff in review). The banner's build id (a hash of
# onnxc's sources) is left out of the comparison; everything else must match byte for byte.
#   cmake -DGENERATED=build/examples/tiny_cnn_onnxc -DEXPECTED=examples/generated -P check_generated.cmake
# To update after an intended change: cp GENERATED/tiny_cnn.{cpp,h} EXPECTED/
foreach(name tiny_cnn.cpp tiny_cnn.h)
  file(READ "${GENERATED}/${name}" got)
  file(READ "${EXPECTED}/${name}" want)
  string(REGEX REPLACE "\\(build [0-9a-f]+\\)" "(build)" got "${got}")
  string(REGEX REPLACE "\\(build [0-9a-f]+\\)" "(build)" want "${want}")
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${GENERATED}/${name} differs from ${EXPECTED}/${name}: if the change is "
                        "intended, copy the new file over the checked-in one")
  endif()
endforeach()
message(STATUS "examples/generated/ matches what onnxc generates")
