# The HTTP player and game master (label "http"): full matches over loopback between
# `ggp match` and two `ggp serve` processes, and malformed requests and deadlines against
# `ggp serve`. Included from tests/CMakeLists.txt. The scripts pick random ports in
# 20000-60000 on 127.0.0.1, bound their own time and kill their servers on exit; they need
# bash and curl (exit 77, skipped, without curl). The protocol unit tests are
# tests/unit/test_protocol.c (label "unit").
if(TARGET server)
  foreach(t http_match http_bad)
    add_test(NAME ${t}
             COMMAND bash ${PROJECT_SOURCE_DIR}/tests/integration/${t}.sh $<TARGET_FILE:ggp>
                     ${PROJECT_SOURCE_DIR})
    set_tests_properties(${t} PROPERTIES LABELS http TIMEOUT 1800 SKIP_RETURN_CODE 77)
  endforeach()
endif()
