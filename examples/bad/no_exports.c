/* A shared library that exports no pec_* function: `pecheck verify` refuses it (exit 2,
 * ABI-GEN-1). Used by tests/e2e. */
int not_a_positional_encoding(int x);
int not_a_positional_encoding(int x) { return x + 1; }
