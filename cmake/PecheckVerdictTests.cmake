# The verdict catalogue (issue 21): tests whose subject is the verdict pecheck gives a kernel
# whose bug is numeric (a formula, a rounding, a convention) or a field formula it must pass,
# or a numeric contract. They run in the release stage. The sanitizer stage, which exists to
# catch memory and UB errors in pecheck's own code and in the verifier's handling of hostile
# kernels, leaves them out (label `verdict`, excluded by the `sanitize` test preset): their code
# paths under ASan are the ones the kept tests already run -- one correct and one field kernel
# per ABI family, every example whose bug is about memory or the process (crash, hang, write or
# read out of bounds, gaps, strides, key heads past n_kv_heads, NaN poison, unwritten output,
# nondeterminism, rejections), and `kernels.verify_simd_scalar` (every function family). Each
# entry is a regular expression matched against a discovered test's full name (a parameterized
# test's name may end in "  # GetParam() = ...").
set(PECHECK_VERDICT_TESTS
  [=[^Examples/FieldV2Kernel\.PassesTheDefaultRunWithExitZero/(vllm_rope|yarn_rope)( |$)]=]
  [=[^Examples/FieldPosKernel\.PassesTheDefaultRunWithExitZero/vllm_mrope( |$)]=]
  [=[^Examples/BuggyV2Kernel\.FailsWithACounterexampleForItsClause/(alibi_bf16_positions|rope_attn_cos_only|rope_attn_twice|rope_bf16_truncate|rope_cache_bf16_cos|rope_cache_token_index|sinusoidal_f16_positions)( |$)]=]
  [=[^Examples/BuggyKernel\.FailsWithAShrunkCounterexampleForItsClause/(alibi_pow2_slopes|rope_bf16_angle|rope_fp16_angle|rope_layout_swap|rope_partial_drop|t5_sign)( |$)]=]
  [=[^Examples/BuggyPosKernel\.FailsItsCheckWithASmallCounterexample/(mrope_interleaved_as_sectioned|mrope_section_offset|mrope_text_positions)( |$)]=]
  [=[^Examples/AttentionBuggy\.FailsItsClauseWithASmallWitness/(attn_alibi_q_index|attn_alibi_sign|attn_rope_q_offset|attn_softcap_after_mask|attn_t5_decode|attn_topleft_cache)( |$)]=]
  [=[^Examples/AttentionField\.PassesWithDefaultOptions/(attn_sdpa|attn_decode_rope|attn_t5)( |$)]=]
  [=[^FieldBugs/Regressions\.CaughtByTheShippedVectorFirst/(alibi_pow2_slopes|rope_bf16_angle|rope_fp16_angle|rope_layout_swap|rope_partial_drop)( |$)]=]
  [=[^Kernels/ShardUnion\.ThreeShardsEqualTheUnshardedRun/"(alibi_pow2_slopes|rope_layout_swap|t5_sign)"$]=]
  [=[^VerifyQk\.FieldFloat32FormulasPassTheDefaultClasses$]=]
  [=[^VerifyQk\.DegradedFloat32CacheFailsTheDefaultClassButPerOperationRoundingOnA16BitCachePasses$]=]
  [=[^Examples/ConsoleHints\.FailureBlockNamesItsCauseOrNone/]=]
  [=[^ConsoleHintsShipped\.]=]
  [=[^Issue13Softmax\.]=]
  [=[^AttentionAccuracy\.]=]
  [=[^Issue20SoftmaxClasses\.]=]
  [=[^GateRequireResolved\.]=]
  [=[^Regressions\.CorrectKernelsPassEveryShippedVector$]=]
  [=[^Classify\.BuiltinEncodingsGetTheSpecsClasses$]=]
  # Honest and numeric-bug kernels of the in-process suites (their kernels are test code, not
  # instrumented): every function family's checks run under ASan in kernels.verify_simd_scalar,
  # the examples' correct kernels and Verify16.HonestSixteenBitKernels...; the dlopen path in both.
  [=[^VerifyQk\.(HonestKernelsPassEveryCheckInEveryStorageType|PluginLoadedThroughDlopenPassesEveryCheck|AttentionFactorTwiceOrOnCosOnlyFails|CacheIndexedByTokenInsteadOfPositionFails|DeclaredRopeDomainHoldsForQueryKeyAndCachedFunctions)$]=]
  [=[^VerifyMrope\.(HonestKernelPassesEveryCheckInEveryStorageType|WrongAxisForASectionFailsTheOracleWithAWitness)$]=]
  [=[^Verify16\.(HuggingFaceSixteenBitArithmeticPassesTheFieldClass|AngleInBfloat16FailsTheRopeOracle|BatchVariantRemainderLoopFailsBatchUnderStrictAndPassesWithout)$]=]
  # Verdicts equal across options (lanes, caps, shards) and generation inside a declared domain:
  # the lane, cap and shard code runs under ASan in every kept verify run (4 lanes by default),
  # Issue13Cap's hang and slow-constructor tests and ShardCli.
  [=[^VerifyLanes\.OneAndFourLanesGiveTheSameCasesAndVerdicts$]=]
  [=[^Issue13Cap\.TheSameSeedUnderTwoCapsThatDoNotCutRunsTheSameCasesAndVerdict$]=]
  [=[^Kernels/ShardUnion\.ThreeShardsEqualTheUnshardedRun/"kernels"$]=]
  [=[^GateDomainRules\.(ParametersNotTakenAreNotGenerated|ACachedRotationDeclaresTheCacheDtypesItTakes)$]=]
  # Production-size checks (issue 20 finding 12): a numeric bug above a size gate, end to end; the
  # .large code (generators, halving shrinkers) runs under ASan in VerifyGate's in-process
  # .large tests (kernels.verify_simd_scalar's --case-scale 0.25 runs no .large case there).
  [=[^BuggyV2Kernel\.SizeGatedPathFailsTheProductionSizeCheckByDefault$]=]
  # classify --kernel on attention kernels (issue 23): verdicts on numeric bugs; the subjects'
  # code runs under ASan in ClassifyAttention.SimdKernelsAreRelativeForEveryEncodingInside.
  [=[^ClassifyAttention\.(DecodeKernelRotatingTheQueryAtItsIndexIsPositionDependent|AlibiQueryIndexBugIsPositionDependentAtLargePositions|T5DecodeSignBugLosesTheOffsetOfEarlierKeys)$]=]
)
