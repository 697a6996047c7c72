// Mocha's spec reporter, plus the run's totals written to $TEST_COUNTS_FILE so that
// scripts/test.mjs can sum every suite into one closing line.
const fs = require('node:fs');
const Mocha = require('mocha');

class CountingReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const file = process.env.TEST_COUNTS_FILE;
      if (!file) return;
      const { passes, failures, pending } = this.stats;
      fs.writeFileSync(file, JSON.stringify({ passes, failures, pending }));
    });
  }
}

module.exports = CountingReporter;
