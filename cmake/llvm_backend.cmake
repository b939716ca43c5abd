# The LLVM backend (issue 36): the library onnxc_llvm, with the backend when LLVM 14 and clang's
# C++ library are found (Debian 12: llvm-14-dev, libclang-14-dev, libclang-cpp14-dev), else with
# entry points that refuse `--emit llvm|bc|asm|obj` in one line. ONNXC_WITH_LLVM overrides.
# LLVM's headers reach only onnxc_llvm's own translation units, built with LLVM's flags.
set(ONNXC_LLVM_DIR compiler/llvm_backend)
# The parts that need no LLVM: the target table and the clang command line (tested either way).
set(ONNXC_LLVM_PLAIN_SOURCES ${ONNXC_LLVM_DIR}/llvm_targets.cpp ${ONNXC_LLVM_DIR}/llvm_command_line.cpp)

set(ONNXC_LLVM_FOUND OFF)
if(NOT DEFINED ONNXC_WITH_LLVM OR ONNXC_WITH_LLVM)
  enable_language(C)  # LLVM's package configuration compiles C probes
  find_package(LLVM 14 CONFIG QUIET HINTS /usr/lib/llvm-14/lib/cmake/llvm)
  if(LLVM_FOUND)
    find_package(Clang CONFIG QUIET HINTS ${LLVM_LIBRARY_DIR}/cmake/clang)
  endif()
  set(ONNXC_CLANG_RESOURCE_DIR ${LLVM_LIBRARY_DIR}/clang/${LLVM_PACKAGE_VERSION})
  if(LLVM_FOUND AND Clang_FOUND AND TARGET clang-cpp AND TARGET LLVM AND
     EXISTS ${ONNXC_CLANG_RESOURCE_DIR}/include/stddef.h)
    set(ONNXC_LLVM_FOUND ON)
  endif()
endif()
option(ONNXC_WITH_LLVM "Build the LLVM backend (--emit llvm|bc|asm|obj)" ${ONNXC_LLVM_FOUND})
if(ONNXC_WITH_LLVM AND NOT ONNXC_LLVM_FOUND)
  message(FATAL_ERROR "ONNXC_WITH_LLVM: LLVM 14 and clang's C++ library were not found "
                      "(apt-get install llvm-14-dev libclang-14-dev libclang-cpp14-dev)")
endif()

# arm-none-eabi's headers (newlib and its libstdc++), for the Cortex-M rows of the target table.
find_program(ONNXC_ARM_NONE_EABI_GXX arm-none-eabi-g++)
set(ONNXC_NONE_EABI_GCC_VERSION "")
if(ONNXC_ARM_NONE_EABI_GXX)
  execute_process(COMMAND ${ONNXC_ARM_NONE_EABI_GXX} -dumpversion
                  OUTPUT_VARIABLE ONNXC_NONE_EABI_GCC_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
find_path(ONNXC_NONE_EABI_INCLUDE newlib.h PATHS /usr/lib/arm-none-eabi/include NO_DEFAULT_PATH)

if(ONNXC_WITH_LLVM)
  message(STATUS "LLVM backend: on (LLVM ${LLVM_PACKAGE_VERSION}, ${ONNXC_CLANG_RESOURCE_DIR})")
  add_library(onnxc_llvm STATIC ${ONNXC_LLVM_PLAIN_SOURCES} ${ONNXC_LLVM_DIR}/llvm_backend.cpp
                                ${ONNXC_LLVM_DIR}/clang_frontend.cpp ${ONNXC_LLVM_DIR}/module_passes.cpp
                                ${ONNXC_LLVM_DIR}/optimizer.cpp)
  target_include_directories(onnxc_llvm SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
  separate_arguments(ONNXC_LLVM_DEFINITIONS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
  target_compile_options(onnxc_llvm PRIVATE ${ONNXC_LLVM_DEFINITIONS} -fno-exceptions)
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(onnxc_llvm PRIVATE -fno-rtti)
  endif()
  target_link_libraries(onnxc_llvm PRIVATE clang-cpp LLVM)
  target_compile_definitions(onnxc_llvm PRIVATE
    ONNXC_CLANG_EXECUTABLE="${LLVM_TOOLS_BINARY_DIR}/clang++"
    ONNXC_CLANG_RESOURCE_DIR="${ONNXC_CLANG_RESOURCE_DIR}")
else()
  message(STATUS "LLVM backend: off (--emit llvm|bc|asm|obj refuses)")
  add_library(onnxc_llvm STATIC ${ONNXC_LLVM_PLAIN_SOURCES} ${ONNXC_LLVM_DIR}/llvm_backend_disabled.cpp)
endif()
target_compile_definitions(onnxc_llvm PRIVATE
  ONNXC_NONE_EABI_INCLUDE="${ONNXC_NONE_EABI_INCLUDE}"
  ONNXC_NONE_EABI_GCC_VERSION="${ONNXC_NONE_EABI_GCC_VERSION}")
target_compile_options(onnxc_llvm PRIVATE -Wall -Wextra -ffp-contract=off)
