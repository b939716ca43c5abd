# onnxc_add_model(<target> MODEL <file.onnx> [NAME <namespace>] [ARGS <onnxc flags>...])
#
# Compiles an ONNX model to C++ at build time and wraps the result in a static library <target>
# whose header is <namespace>.h. Works when cross-compiling: the compiler runs on the host, taken
# from ONNXC_EXECUTABLE if set (a host build of onnxc), else from this project's `onnxc` target.
# The generated files record the model's file name, hash and the flags, never a path, so every
# build folder (and every machine with the same onnxc) produces byte-identical sources.
function(onnxc_add_model target)
  cmake_parse_arguments(ARG "" "MODEL;NAME" "ARGS" ${ARGN})
  if(NOT ARG_MODEL)
    message(FATAL_ERROR "onnxc_add_model(${target}): MODEL is required")
  endif()
  if(NOT ARG_NAME)
    set(ARG_NAME ${target})
  endif()
  get_filename_component(model ${ARG_MODEL} ABSOLUTE)
  if(ONNXC_EXECUTABLE)
    set(compiler ${ONNXC_EXECUTABLE})
  else()
    set(compiler $<TARGET_FILE:onnxc>)
  endif()
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/${target}_onnxc)
  add_custom_command(
    OUTPUT ${out_dir}/${ARG_NAME}.cpp ${out_dir}/${ARG_NAME}.h
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
    COMMAND ${compiler} ${model} -o ${out_dir}/${ARG_NAME}.cpp --name ${ARG_NAME} ${ARG_ARGS}
    DEPENDS ${model} ${compiler}
    COMMENT "onnxc: compiling ${ARG_MODEL}"
    VERBATIM)
  add_library(${target} STATIC ${out_dir}/${ARG_NAME}.cpp)
  target_include_directories(${target} PUBLIC ${out_dir})
endfunction()
