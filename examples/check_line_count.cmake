# Fails when FILE has MAX_LINES lines or more (issue 12: the example CNN's generated .cpp, runtime
# inlined, stays under 900 lines: the inliner pastes only the kernels the model calls).
#   cmake -DFILE=path -DMAX_LINES=N -P check_line_count.cmake
file(READ "${FILE}" text)
string(REGEX MATCHALL "\n" newlines "${text}")
list(LENGTH newlines count)
if(count GREATER_EQUAL MAX_LINES)
  message(FATAL_ERROR "${FILE}: ${count} lines, the limit is under ${MAX_LINES}")
endif()
message(STATUS "${FILE}: ${count} lines (under ${MAX_LINES})")
