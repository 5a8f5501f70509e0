/* References a symbol no library defines: dlopen(RTLD_NOW) fails with the loader's reason. */
int pec_abi_version(void);
extern int pecheck_test_vanishing_symbol(void);
int pec_abi_version(void) { return pecheck_test_vanishing_symbol(); }
