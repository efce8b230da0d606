/*
 * simpp -- the CUDA simulator's pre-pass (built by grading/sim/simcc on first use).
 *
 *   simpp IN.cu OUT.cpp
 *
 * Copies IN to OUT, starting with  #line 1 "IN"  and changing only:
 *   kernel<<<grid, block[, shmem[, stream]]>>>(args)
 *       -> ::cuda_sim::kernel_of([=](auto &&...cuda_sim_a) { kernel(cuda_sim_a...); }, "kernel")
 *              << ::cuda_sim::cfg(grid, block[, shmem[, stream]])(args)
 *   (the kernel is called, not named, so that a kernel template's arguments are deduced
 *   and an overloaded kernel is chosen as in a call; where the kernel is more than a
 *   possibly qualified name with template arguments, e.g. (*fp) or s.fp, it stays:
 *   fp << ::cuda_sim::cfg(...)(args), a pointer to a function that is not a template)
 *   extern __shared__ T name[];
 *       -> extern __sim_extern_shared__ T name[] __asm__("cuda_sim_dynamic_shared");
 *   and, after the last line, the name made a weak alias of that storage (GCC ignores the
 *   asm label of a block-scope extern inside a template).
 *   __shared__ T a[N], b;   (in a function)
 *       -> __shared__ T a[N], b; ::cuda_sim::shared_seen((void *)&(a), sizeof(a)); ...
 *   (GCC puts a template kernel's static locals in .bss, outside the shared section that
 *   every block start poisons: the simulator learns of them so.)
 *   for (HEADER) BODY   (in a function)
 *       -> for (HEADER) if (::cuda_sim::tick(), false) {} else BODY
 *   while (COND)        (in a function; a do-while's too)
 *       -> while ((::cuda_sim::tick(), (COND)))
 *   label:              (in a function, at the start of a statement: a goto's target)
 *       -> label: ::cuda_sim::tick();
 *   ) {                 (a function's body; not a struct's after __align__(N) or alignas(N))
 *       -> ) { ::cuda_sim::tick();
 *   (a loop iteration, a pass through a label and a call of a simulated thread, for the
 *   work record; nothing on the host)
 *   cudaLaunchKernel((void *)kernel, ...), cudaLaunchCooperativeKernel((const void *)kernel, ...)
 *       -> the same without the cast (the kernel's own type chooses the launch)
 * Comments, string and character literals are left alone.  Nothing moves to another
 * line, so the compiler's line numbers are the user's.  Exit 1 on an unterminated
 * launch (with file:line), 2 on usage or I/O errors.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *src;
static size_t len, pos;
static char *in_comment; /* in_comment[i]: src[i] is in a comment (known up to pos) */
static char *obuf;       /* the output, written to OUT at the end */
static size_t olen, ocap;
static const char *name;

static int is_id(int c) { return isalnum(c) || c == '_'; }

static void emit(const char *p, size_t n)
{
    if (olen + n > ocap) {
        while (olen + n > ocap)
            ocap = ocap ? 2 * ocap : 1 << 16;
        obuf = realloc(obuf, ocap);
        if (!obuf) {
            fprintf(stderr, "simpp: out of memory\n");
            exit(2);
        }
    }
    memcpy(obuf + olen, p, n);
    olen += n;
}
static void emitc(char c) { emit(&c, 1); }
static void emits(const char *s) { emit(s, strlen(s)); }

static size_t space_before(size_t i)
{
    while (i > 0 && (isspace((unsigned char)src[i - 1]) || in_comment[i - 1]))
        i--;
    return i;
}

/* 1 when the word at src[s..e) is w */
static int word_is(size_t s, size_t e, const char *w) { return e - s == strlen(w) && strncmp(src + s, w, e - s) == 0; }

/* 1 when the ')' at src[i - 1] closes an alignment or attribute of a struct, as in
 * `typedef struct __align__(16) {`: the brace after it opens the type, not a function's body. */
static int type_attribute_before(size_t i)
{
    size_t k = i, e, s;
    int d = 0;
    while (k > 0) { /* back to the matching '(' */
        k--;
        if (in_comment[k])
            continue;
        if (src[k] == ')')
            d++;
        else if (src[k] == '(' && --d == 0)
            break;
    }
    if (d != 0)
        return 0;
    for (e = space_before(k), s = e; s > 0 && is_id(src[s - 1]); s--)
        ;
    if (word_is(s, e, "__align__") || word_is(s, e, "alignas"))
        return 1;
    if (!word_is(s, e, "__attribute__") && !word_is(s, e, "__declspec"))
        return 0;
    for (e = space_before(s), s = e; s > 0 && is_id(src[s - 1]); s--)
        ;
    return word_is(s, e, "struct") || word_is(s, e, "union") || word_is(s, e, "class");
}

/* 1 when the token at src[i] starts a statement: after ';', '{' or '}' (or a label's ':'). */
static int stmt_start(size_t i)
{
    size_t b = space_before(i);
    return b == 0 || src[b - 1] == ';' || src[b - 1] == '{' || src[b - 1] == '}';
}

/* The start of the kernel expression that ends just before src[at] (the launch's '<<<'):
 * NAME, NAME<...>, A::B<...>::NAME<...>, ::NAME.  Returns at when it is anything else. */
static size_t kernel_start(size_t at)
{
    size_t i = space_before(at), start;
    for (;;) {
        if (i > 0 && src[i - 1] == '>') { /* template arguments, then their template's name */
            int d = 0;
            size_t k = i;
            while (k > 0) {
                char c = src[--k];
                if (c == '>')
                    d++;
                else if (c == '<' && --d == 0)
                    break;
                else if (c == ';' || c == '{' || c == '}' || c == '"' || c == '\'' || c == '/' || c == '#')
                    return at;
            }
            if (d != 0)
                return at;
            i = space_before(k);
        }
        if (!(i > 0 && is_id(src[i - 1])))
            return at;
        while (i > 0 && is_id(src[i - 1]))
            i--;
        if (isdigit((unsigned char)src[i]))
            return at;
        start = i;
        i = space_before(i);
        if (i >= 2 && src[i - 1] == ':' && src[i - 2] == ':') {
            start = i - 2;
            i = space_before(i - 2);
            if (i > 0 && (is_id(src[i - 1]) || src[i - 1] == '>'))
                continue;
        }
        break;
    }
    /* what comes before must end a statement or start an operand: not s.k, p->k, *k, &k */
    i = space_before(start);
    if (i == 0 || is_id(src[i - 1]) || strchr(";{}(),:?=", src[i - 1]))
        return start;
    return at;
}

static int line_of(size_t at)
{
    int line = 1;
    for (size_t i = 0; i < at && i < len; i++)
        line += src[i] == '\n';
    return line;
}

/* Copies a comment or literal starting at pos (if there is one); returns 1 if it did. */
/* The names declared by the declaration src[from, to) (after its __shared__): each
 * comma-separated declarator's last identifier before its first '[' or '=' outside
 * brackets.  Writes at most max names into names[]; returns how many. */
static int declared_names(size_t from, size_t to, char names[][64], int max)
{
    int n = 0, nest = 0, frozen = 0;
    char cur[64] = "";
    for (size_t i = from; i <= to; i++) {
        char c = i < to ? src[i] : ',';
        if (i < to && in_comment[i])
            continue;
        if (i < to && is_id(c) && (i == from || !is_id(src[i - 1]))) {
            size_t k = i;
            while (k < to && is_id(src[k]))
                k++;
            if (nest == 0 && !frozen && k - i < sizeof cur && !isdigit((unsigned char)c)) {
                memcpy(cur, src + i, k - i);
                cur[k - i] = '\0';
            }
            i = k - 1;
            continue;
        }
        if (c == '(' || c == '{' || c == '[' || (c == '<' && i + 1 < to && src[i + 1] != '<')) {
            if (nest == 0 && c == '[')
                frozen = 1;
            nest++;
        } else if ((c == ')' || c == '}' || c == ']' || c == '>') && nest > 0) {
            nest--;
        } else if (nest == 0 && c == '=') {
            frozen = 1;
        }
        if (nest == 0 && c == ',') {
            if (cur[0] && n < max)
                strcpy(names[n++], cur);
            cur[0] = '\0';
            frozen = 0;
        }
    }
    return n;
}

static int copy_literal(void)
{
    char c = src[pos];
    size_t from = pos;
    if (c == '/' && pos + 1 < len && src[pos + 1] == '/') {
        while (pos < len && src[pos] != '\n') {
            if (src[pos] == '\\' && pos + 1 < len && src[pos + 1] == '\n')
                emitc(src[pos++]);
            emitc(src[pos++]);
        }
        memset(in_comment + from, 1, pos - from);
        return 1;
    }
    if (c == '/' && pos + 1 < len && src[pos + 1] == '*') {
        emits("/*");
        pos += 2;
        while (pos < len && !(src[pos] == '*' && pos + 1 < len && src[pos + 1] == '/'))
            emitc(src[pos++]);
        if (pos < len) {
            emits("*/");
            pos += 2;
        }
        memset(in_comment + from, 1, pos - from);
        return 1;
    }
    if (c == 'R' && pos + 1 < len && src[pos + 1] == '"' && (pos == 0 || !is_id(src[pos - 1]))) {
        /* raw string R"delim( ... )delim" */
        size_t d = pos + 2;
        while (d < len && src[d] != '(' && d - pos < 20)
            d++;
        if (d < len && src[d] == '(') {
            char close[24];
            size_t dl = d - (pos + 2);
            close[0] = ')';
            memcpy(close + 1, src + pos + 2, dl);
            close[dl + 1] = '"';
            close[dl + 2] = '\0';
            char *end = strstr(src + d, close);
            size_t stop = end ? (size_t)(end - src) + dl + 2 : len;
            emit(src + pos, stop - pos);
            pos = stop;
            return 1;
        }
    }
    if (c == '"' || (c == '\'' && !(pos > 0 && isxdigit((unsigned char)src[pos - 1]) &&
                                     pos + 1 < len && isxdigit((unsigned char)src[pos + 1])))) {
        /* (a ' between hex digits is a C++14 digit separator: 1'000'000) */
        emitc(src[pos++]);
        while (pos < len && src[pos] != c && src[pos] != '\n') {
            if (src[pos] == '\\' && pos + 1 < len)
                emitc(src[pos++]);
            emitc(src[pos++]);
        }
        if (pos < len && src[pos] == c)
            emitc(src[pos++]);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: simpp IN.cu OUT.cpp\n");
        return 2;
    }
    name = argv[1];
    FILE *in = fopen(name, "rb");
    if (!in) {
        perror(name);
        return 2;
    }
    size_t cap = 1 << 16;
    src = malloc(cap + 1);
    size_t got;
    while ((got = fread(src + len, 1, cap - len, in)) > 0) {
        len += got;
        if (len == cap)
            src = realloc(src, (cap *= 2) + 1);
    }
    fclose(in);
    src[len] = '\0';
    in_comment = calloc(len + 1, 1);
    if (!in_comment) {
        fprintf(stderr, "simpp: out of memory\n");
        return 2;
    }
    emits("#line 1 \"");
    for (const char *p = name; *p; p++) {
        if (*p == '"' || *p == '\\')
            emitc('\\');
        emitc(*p);
    }
    emits("\"\n");

    int in_launch = 0, depth = 0, want_label = 0, label_depth = 0;
    /* the names of the extern __shared__ arrays (GCC ignores the asm label of a block-scope
     * extern inside a template: the plain name is made an alias at the end) */
    static char shared_names[64][64];
    int nshared = 0;
    size_t launch_at = 0;
    char last_id[64] = "";
    /* braces: whether each open one is in a function (opened after a ')', or inside such) */
    static char in_fn[1024];
    int braces = 0;
    /* a __shared__ declaration in a function, from just after the keyword, until its ';' */
    int shared_pending = 0, shared_nest = 0;
    /* loops whose header is open: the parenthesis depth its '(' opened at, and for or while */
    static int loop_paren[256];
    static char loop_for[256];
    int nloops = 0, parens = 0;
    size_t shared_from = 0;
    while (pos < len) {
        if (copy_literal())
            continue;
        char c = src[pos];
        if (is_id(c) && (pos == 0 || !is_id(src[pos - 1]))) {
            size_t s = pos;
            while (pos < len && is_id(src[pos]))
                pos++;
            size_t n = pos - s;
            if (n == 6 && !memcmp(src + s, "extern", 6)) {
                size_t k = pos;
                while (k < len && isspace((unsigned char)src[k]))
                    k++;
                if (len - k >= 10 && !memcmp(src + k, "__shared__", 10) && !is_id(src[k + 10])) {
                    emit(src + s, k - s);
                    emits("__sim_extern_shared__");
                    pos = k + 10;
                    want_label = 1;
                    label_depth = depth;
                    continue;
                }
                /* the type first: extern float __shared__ smem[]; (threadFenceReduction) */
                size_t t = k, sh = 0;
                while (t < len && t - k < 80 && (is_id(src[t]) || isspace((unsigned char)src[t]) || src[t] == ':')) {
                    if (!sh && len - t >= 10 && !memcmp(src + t, "__shared__", 10) && !is_id(src[t - 1]) &&
                        !is_id(src[t + 10]))
                        sh = t;
                    t++;
                }
                if (sh > k && t < len && src[t] == '[') {
                    /* -> extern __sim_extern_shared__ TYPE NAME[] (the label follows the name) */
                    emit(src + s, k - s);
                    emits("__sim_extern_shared__ ");
                    emit(src + k, sh - k);
                    pos = sh + 10;
                    want_label = 1;
                    label_depth = depth;
                    continue;
                }
            }
            /* a loop in a function: a tick of the running simulated thread every iteration */
            if (((n == 3 && !memcmp(src + s, "for", 3)) || (n == 5 && !memcmp(src + s, "while", 5))) && braces > 0 &&
                in_fn[braces - 1] && !in_launch && nloops < (int)(sizeof loop_paren / sizeof loop_paren[0])) {
                size_t k = pos;
                while (k < len && isspace((unsigned char)src[k]) && src[k] != '\n')
                    k++;
                if (k < len && src[k] == '(') {
                    emit(src + s, k - s);
                    emits(n == 3 ? "(" : "((::cuda_sim::tick(), (");
                    loop_paren[nloops] = parens++;
                    loop_for[nloops++] = n == 3;
                    pos = k + 1;
                    last_id[0] = '\0';
                    continue;
                }
            }
            /* a label in a function (a goto's target): a tick each time it is passed */
            if (braces > 0 && in_fn[braces - 1] && !in_launch && stmt_start(s) &&
                !(n == 6 && !memcmp(src + s, "public", 6)) && !(n == 7 && !memcmp(src + s, "private", 7)) &&
                !(n == 9 && !memcmp(src + s, "protected", 9))) {
                size_t k = pos;
                while (k < len && (src[k] == ' ' || src[k] == '\t'))
                    k++;
                if (k < len && src[k] == ':' && (k + 1 >= len || src[k + 1] != ':')) {
                    emit(src + s, k + 1 - s);
                    emits(" ::cuda_sim::tick();");
                    pos = k + 1;
                    last_id[0] = '\0';
                    continue;
                }
            }
            if (n == 10 && !memcmp(src + s, "__shared__", 10) && braces > 0 && in_fn[braces - 1] &&
                !shared_pending) {
                shared_pending = 1;
                shared_nest = 0;
                shared_from = pos;
            }
            emit(src + s, n);
            /* cudaLaunchKernel((void *)kernel, ...) and cudaLaunchCooperativeKernel: the cast
             * dropped, so that the kernel's own type picks the launch (the runtime cannot learn
             * a kernel's parameters from a void *) */
            if ((n == 16 && !memcmp(src + s, "cudaLaunchKernel", 16)) ||
                (n == 27 && !memcmp(src + s, "cudaLaunchCooperativeKernel", 27))) {
                size_t k = pos, nl = 0;
                while (k < len && isspace((unsigned char)src[k]))
                    k++;
                if (k < len && src[k] == '(') {
                    size_t c0 = k + 1, q = c0;
                    while (q < len && isspace((unsigned char)src[q]))
                        q++;
                    size_t cast = q;
                    int ok = q < len && src[q] == '(';
                    if (ok) {
                        q++;
                        while (q < len && isspace((unsigned char)src[q]))
                            q++;
                        if (len - q >= 5 && !memcmp(src + q, "const", 5) && !is_id(src[q + 5])) {
                            q += 5;
                            while (q < len && isspace((unsigned char)src[q]))
                                q++;
                        }
                        ok = len - q >= 4 && !memcmp(src + q, "void", 4) && !is_id(src[q + 4]);
                        q += 4;
                        while (ok && q < len && isspace((unsigned char)src[q]))
                            q++;
                        ok = ok && q < len && src[q] == '*';
                        q++;
                        while (ok && q < len && isspace((unsigned char)src[q]))
                            q++;
                        ok = ok && q < len && src[q] == ')' && !memchr(in_comment + cast, 1, q + 1 - cast);
                    }
                    if (ok) {
                        emit(src + pos, cast - pos); /* "(" and the blanks before the cast */
                        for (size_t i = cast; i <= q; i++) /* (its line breaks kept) */
                            nl += src[i] == '\n';
                        for (size_t i = 0; i < nl; i++)
                            emitc('\n');
                        pos = q + 1;
                        parens++;
                        depth++;
                    }
                }
            }
            if (n < sizeof last_id) {
                memcpy(last_id, src + s, n);
                last_id[n] = '\0';
            } else {
                last_id[0] = '\0';
            }
            continue;
        }
        if (!in_launch && c == '<' && len - pos >= 3 && src[pos + 1] == '<' && src[pos + 2] == '<' &&
            strcmp(last_id, "operator") != 0) {
            /* the kernel expression, emitted as it is in IN, goes into a lambda that calls it */
            size_t k = kernel_start(pos), kn = space_before(pos) - k;
            if (k < pos && !memchr(in_comment + k, 1, kn) && pos - k <= olen &&
                !memcmp(obuf + olen - (pos - k), src + k, pos - k)) {
                olen -= pos - k;
                emits("::cuda_sim::kernel_of([=](auto &&...cuda_sim_a) { ");
                emit(src + k, kn);
                emits("(cuda_sim_a...); }, \"");
                /* its name, for the profiler's lines: the expression, blanks squeezed */
                for (size_t q = k; q < k + kn; q++) {
                    char ch = src[q];
                    if (ch == '"' || ch == '\\' || ch == '\n' || ch == '\r' || ch == '\t' || ch == ' ')
                        continue;
                    emitc(ch);
                }
                emits("\")");
                emit(src + k + kn, pos - k - kn);
            }
            emits(" << ::cuda_sim::cfg(");
            pos += 3;
            in_launch = 1;
            launch_at = pos;
            depth = 0;
            continue;
        }
        if (in_launch && depth == 0 && c == '>' && len - pos >= 3 && src[pos + 1] == '>' && src[pos + 2] == '>') {
            emitc(')');
            pos += 3;
            in_launch = 0;
            continue;
        }
        if (c == '[' && want_label && depth == label_depth && last_id[0] && nshared < 64) {
            int seen = 0;
            for (int i = 0; i < nshared; i++)
                seen |= strcmp(shared_names[i], last_id) == 0;
            if (!seen)
                strcpy(shared_names[nshared++], last_id);
        }
        if (c == '{' && braces < (int)sizeof in_fn) {
            size_t b = space_before(pos);
            int after_paren = b > 0 && src[b - 1] == ')' && !type_attribute_before(b);
            int body = !(braces > 0 && in_fn[braces - 1]) && after_paren;
            in_fn[braces] = (braces > 0 && in_fn[braces - 1]) || after_paren;
            braces++;
            if (body && !in_launch && !shared_pending) {
                /* a function's body: a tick at every call (recursion is a loop too) */
                emits("{ ::cuda_sim::tick();");
                pos++;
                depth++;
                last_id[0] = '\0';
                continue;
            }
        } else if (c == '}' && braces > 0) {
            braces--;
        }
        if (shared_pending) {
            if (c == '(' || c == '[' || c == '{')
                shared_nest++;
            else if (c == ')' || c == ']' || c == '}')
                shared_nest--;
            if (shared_nest < 0)
                shared_pending = 0; /* not a declaration after all */
            else if (c == ';' && shared_nest == 0) {
                char names[16][64];
                int k = declared_names(shared_from, pos, names, 16);
                emitc(';');
                for (int i = 0; i < k; i++) {
                    emits(" ::cuda_sim::shared_seen((void *)&(");
                    emits(names[i]);
                    emits("), sizeof(");
                    emits(names[i]);
                    emits("));");
                }
                shared_pending = 0;
                pos++;
                last_id[0] = '\0';
                continue;
            }
        }
        if (c == '(')
            parens++;
        else if (c == ')' && parens > 0 && --parens == (nloops ? loop_paren[nloops - 1] : -1)) {
            /* the end of a loop's header */
            emits(loop_for[--nloops] ? ") if (::cuda_sim::tick(), false) {} else" : ")))");
            depth--;
            pos++;
            last_id[0] = '\0';
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}')
            depth--;
        else if (c == ';' && want_label && depth == label_depth) {
            emits(" __asm__(\"cuda_sim_dynamic_shared\")");
            want_label = 0;
        }
        if (in_launch && (c == ';' || depth < 0)) {
            fprintf(stderr, "%s:%d: error: kernel launch '<<<' without its closing '>>>'\n", name,
                    line_of(launch_at));
            return 1;
        }
        if (!isspace((unsigned char)c))
            last_id[0] = '\0';
        emitc(c);
        pos++;
    }
    if (in_launch) {
        fprintf(stderr, "%s:%d: error: kernel launch '<<<' without its closing '>>>'\n", name, line_of(launch_at));
        return 1;
    }
    for (int i = 0; i < nshared; i++) { /* after the last line: line numbers unchanged */
        emits("\n__asm__(\".weak ");
        emits(shared_names[i]);
        emits("\\n.set ");
        emits(shared_names[i]);
        emits(", cuda_sim_dynamic_shared\");");
    }
    if (nshared)
        emitc('\n');
    FILE *out = fopen(argv[2], "wb");
    if (!out || fwrite(obuf, 1, olen, out) != olen || fclose(out) != 0) {
        perror(argv[2]);
        return 2;
    }
    return 0;
}
