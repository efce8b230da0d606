/* Hostile task: does not compile.  Expected: BUILD_ERROR with the compiler's message. */
int main(void)
{
    return 0
}
