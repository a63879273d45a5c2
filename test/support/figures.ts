/**
 * Prints what a test measured (answers by status, outcomes per crash step) when LEADFLOW_TEST_FIGURES=1;
 * otherwise a run stays quiet. Whether a test passes is its assertions' business, never these lines.
 */
export function reportFigures(line: string): void {
  if (process.env.LEADFLOW_TEST_FIGURES === '1') console.log(line);
}
