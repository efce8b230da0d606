# strip-runtime.awk -- a copy of cuda_sim.h or cuda_sim_profile.h in which each function
# marked CUDA_SIM_RT or CUDA_SIM_API_FN keeps its signature, as a declaration, and loses its
# body (blank lines: the line numbers stay).  simcc compiles programs against this copy when
# it keeps the runtime compiled apart (see CUDA_SIM_RT in cuda_sim.h).  A marked function
# starts a line; its body's braces balance, with none in its strings or comments.
function count(s, c) { return gsub(c, "", s) }
mode == 2 {
    depth += count($0, "{") - count($0, "}")
    print ""
    if (depth == 0) mode = 0
    next
}
mode == 0 && /^(\[\[noreturn\]\] )?(CUDA_SIM_NOTSAN )?CUDA_SIM_(RT|API_FN) / { mode = 1; sig = "" }
mode == 1 {
    b = index($0, "{")
    if (b == 0) {
        if (sig == "" && $0 ~ /\);?[^(]*;[[:space:]]*$/) { print; mode = 0; next } # a declaration already
        sig = sig $0 "\n"
        next
    }
    printf "%s%s;\n", sig, substr($0, 1, b - 1)
    depth = count(substr($0, b), "{") - count(substr($0, b), "}")
    mode = depth == 0 ? 0 : 2
    next
}
{ print }
