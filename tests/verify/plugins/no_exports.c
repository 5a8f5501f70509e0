/* A valid shared library without any pec_* symbol. */
int not_a_kernel(int x) { return x + 1; }
