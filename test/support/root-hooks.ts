import { skippedSuites } from './skipped-suites.js';

export const mochaHooks = {
  afterAll() {
    const skipped = skippedSuites();
    if (skipped.size === 0) return;
    console.log(`\n  SKIPPED ${skipped.size} suite(s) for lack of a server or tool:`);
    for (const [suite, reason] of skipped) console.log(`    - ${suite}: ${reason}`);
    console.log(
      '  Set LEADFLOW_REQUIRE_MYSQL=1 / LEADFLOW_REQUIRE_REDIS=1 / LEADFLOW_REQUIRE_PROMTOOL=1 / LEADFLOW_REQUIRE_PYTHON_GRPC=1 to make these failures instead.\n',
    );
  },
};
