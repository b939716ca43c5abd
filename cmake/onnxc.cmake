# onnxc_add_model(<target> MODEL <file.onnx> [NAME <namespace>] [WEIGHTS embed|external]
#                 [DIMS <name>=<value>...] [SHAPES <input>=<d0>x<d1>...] [TARGET <isa>]
#                 [THREADS <n>] [IMAGE_LIBS] [EMIT cpp|obj] [OPTIONS <other onnxc flags>...])
#
# Compiles an ONNX model to C++ at build time and wraps the result in a static library <target>
# whose header is <namespace>.h (namespace defaults to <target>). Each keyword maps to one onnxc
# flag: NAME --name, WEIGHTS --weights embedded|external, DIMS --dim, SHAPES --shape, TARGET
# --target, OPTIONS verbatim (e.g. --max-scratch 16384). ARGS is a deprecated alias of OPTIONS.
# THREADS n: --threads n: the heavy kernels run in n parts and run() takes an onnxc::Parallel
# (the program passes a pool: onnxc/thread_pool.h has one, which needs Threads::Threads).
#
# IMAGE_LIBS: the model's ImageDecoder also decodes WebP and JPEG 2000, through the system's
# libwebp and OpenJPEG (found with pkg-config): the library is built with -DONNXC_IMAGE_LIBS and
# links both. Without it, ImageDecoder decodes BMP, PNM, PNG, TIFF and JPEG with no library.
#
# EMIT obj: onnxc compiles the model with its LLVM backend (onnxc built with ONNXC_WITH_LLVM) into
# <namespace>.o for TARGET's triple, and the library wraps that object: no C++ compile step, for
# host and cross toolchains alike (name the TARGET: the default, generic, is the host's triple).
# EMIT cpp (the default) compiles the .cpp with -ffp-contract=off (g++, clang++), as onnxc test
# does: both give the same outputs, bit for bit.
#
# WEIGHTS external also declares <namespace>.bin as an output and stores its path in the target
# property ONNXC_WEIGHTS_FILE; the program loads it (e.g. with mmap) and passes it to run().
#
# Which onnxc runs (always a host executable, also when cross-compiling):
#   1. ONNXC_EXECUTABLE, if set (a cache variable: a host build of onnxc);
#   2. else the target onnxc::onnxc: the imported executable of find_package(onnxc), or the alias
#      of the in-tree target `onnxc` when this project is built or added with add_subdirectory.
# The custom command depends on the model file and on that executable, and ninja/make rerun it
# when its command line changes, so onnxc reruns only when the model, the options or onnxc change.
# The generated files record the model's file name, hash and flags, never a path, so every build
# folder (and every machine with the same onnxc) produces byte-identical sources.
include_guard(GLOBAL)

# Sets <out> to the onnxc executable (a path or a $<TARGET_FILE:...> expression), or fails.
function(_onnxc_find_compiler out)
  if(ONNXC_EXECUTABLE)
    # A full path: it is also a file dependency of every generated model.
    if(NOT IS_ABSOLUTE "${ONNXC_EXECUTABLE}" OR NOT EXISTS "${ONNXC_EXECUTABLE}")
      message(FATAL_ERROR "onnxc_add_model: ONNXC_EXECUTABLE must be the full path of a host "
                          "onnxc, not '${ONNXC_EXECUTABLE}'")
    endif()
    set(${out} ${ONNXC_EXECUTABLE} PARENT_SCOPE)
  elseif(TARGET onnxc::onnxc)
    set(${out} $<TARGET_FILE:onnxc::onnxc> PARENT_SCOPE)
  else()
    message(FATAL_ERROR "onnxc_add_model: no onnxc executable: call find_package(onnxc), add the "
                        "onnxc project with add_subdirectory, or set ONNXC_EXECUTABLE to a host onnxc")
  endif()
endfunction()

# Sets <out> to the onnxc flags the keywords of onnxc_add_model ask for.
function(_onnxc_model_flags out target)
  set(flags --name ${ARG_NAME})
  if(DEFINED ARG_WEIGHTS)
    if(ARG_WEIGHTS STREQUAL "embed" OR ARG_WEIGHTS STREQUAL "embedded")
      list(APPEND flags --weights embedded)
    elseif(ARG_WEIGHTS STREQUAL "external")
      list(APPEND flags --weights external)
    else()
      message(FATAL_ERROR "onnxc_add_model(${target}): WEIGHTS must be embed or external, "
                          "not '${ARG_WEIGHTS}'")
    endif()
  endif()
  foreach(dim IN LISTS ARG_DIMS)
    list(APPEND flags --dim ${dim})
  endforeach()
  foreach(shape IN LISTS ARG_SHAPES)
    list(APPEND flags --shape ${shape})
  endforeach()
  if(ARG_TARGET)
    list(APPEND flags --target ${ARG_TARGET})
  endif()
  if(DEFINED ARG_THREADS AND NOT ARG_THREADS STREQUAL "1")
    list(APPEND flags --threads ${ARG_THREADS})
  endif()
  if(ARG_ARGS)
    message(DEPRECATION "onnxc_add_model(${target}): ARGS is deprecated, use OPTIONS")
  endif()
  list(APPEND flags ${ARG_OPTIONS} ${ARG_ARGS})
  set(${out} ${flags} PARENT_SCOPE)
endfunction()

function(onnxc_add_model target)
  cmake_parse_arguments(ARG "IMAGE_LIBS" "MODEL;NAME;WEIGHTS;TARGET;THREADS;EMIT"
                        "DIMS;SHAPES;OPTIONS;ARGS"
                        ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "onnxc_add_model(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_MODEL)
    message(FATAL_ERROR "onnxc_add_model(${target}): MODEL is required")
  endif()
  if(NOT ARG_NAME)
    set(ARG_NAME ${target})
  endif()
  get_filename_component(model ${ARG_MODEL} ABSOLUTE)
  _onnxc_find_compiler(compiler)
  _onnxc_model_flags(flags ${target})

  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/${target}_onnxc)
  set(code ${out_dir}/${ARG_NAME}.cpp)
  if(ARG_EMIT STREQUAL "obj")
    if(ARG_IMAGE_LIBS)
      message(FATAL_ERROR "onnxc_add_model(${target}): IMAGE_LIBS needs EMIT cpp")
    endif()
    set(code ${out_dir}/${ARG_NAME}.o)
    list(APPEND flags --emit obj)
    set_source_files_properties(${code} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  elseif(DEFINED ARG_EMIT AND NOT ARG_EMIT STREQUAL "cpp")
    message(FATAL_ERROR "onnxc_add_model(${target}): EMIT must be cpp or obj, not '${ARG_EMIT}'")
  endif()
  set(outputs ${code} ${out_dir}/${ARG_NAME}.h)
  if(ARG_WEIGHTS STREQUAL "external")
    list(APPEND outputs ${out_dir}/${ARG_NAME}.bin)
  endif()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
    COMMAND ${compiler} ${model} -o ${code} ${flags}
    DEPENDS ${model} ${compiler}
    COMMENT "onnxc: compiling ${ARG_MODEL} to ${code}"
    VERBATIM)
  # Listing the .bin among the sources makes the library depend on it (it is not compiled), so a
  # deleted .bin is written again.
  add_library(${target} STATIC ${outputs})
  target_include_directories(${target} PUBLIC ${out_dir})
  if(ARG_EMIT STREQUAL "obj")
    set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX)  # an object, no source
  elseif(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    # No a * b + c fused where the code does not write an FMA (g++ fuses across statements by
    # default wherever the CPU has one): the outputs of onnxc test and bench, and of EMIT obj,
    # bit for bit (kNoFpContraction, compiler/llvm_backend/llvm_targets.h).
    target_compile_options(${target} PRIVATE -ffp-contract=off)
  endif()
  # The runtime headers: code generated with --runtime include #includes them, and a program
  # running a THREADS model includes onnxc/thread_pool.h. The default (--runtime inline) code
  # pastes what it uses and builds with no include path, as the Cortex-M examples check.
  string(FIND "${flags}" "--runtime;include" include_list)
  string(FIND "${flags}" "--runtime=include" include_eq)
  if(TARGET onnxc::runtime AND (include_list GREATER -1 OR include_eq GREATER -1 OR
                                (DEFINED ARG_THREADS AND NOT ARG_THREADS STREQUAL "1")))
    target_link_libraries(${target} PUBLIC onnxc::runtime)
  endif()
  if(ARG_IMAGE_LIBS)
    find_package(PkgConfig REQUIRED)
    pkg_check_modules(ONNXC_IMAGE_LIBS REQUIRED IMPORTED_TARGET libwebp libopenjp2)
    target_compile_definitions(${target} PRIVATE ONNXC_IMAGE_LIBS)
    target_link_libraries(${target} PUBLIC PkgConfig::ONNXC_IMAGE_LIBS)
  endif()
  if(ARG_WEIGHTS STREQUAL "external")
    set_target_properties(${target} PROPERTIES ONNXC_WEIGHTS_FILE ${out_dir}/${ARG_NAME}.bin)
  endif()
endfunction()
