// The command line of the A/B scripts (ab.mjs, ab-stores.mjs): `<git-ref> [rounds]`, read before
// anything is built or swapped. --help/-h: the usage, exit 0; anything else: the usage, exit 2.

/** Returns `{ ref, rounds }`, or exits. */
export function abArgs(usage, argv = process.argv.slice(2)) {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage)
    process.exit(0)
  }
  if (argv.length < 1 || argv.length > 2 || argv.some((a) => a.startsWith('-')) || (argv[1] !== undefined && !/^[1-9]\d*$/.test(argv[1]))) {
    console.error(usage)
    process.exit(2)
  }
  return { ref: argv[0], rounds: Number(argv[1] ?? 5) }
}
