import type { FilterRule } from '../definition/buyer-definition.js';
import type { FactValue, LeadFacts } from './lead-facts.js';
import { cachedLinearPattern, type LinearPattern } from './linear-pattern.js';

export { type FactValue, type LeadFacts, type LeadFactsInput, leadFacts } from './lead-facts.js';

/**
 * Text comparisons of filters ignore case, patterns included: "ca", "CA" and /^c/ all match the state CA.
 * Throws PatternError for a pattern the linear-time engine refuses.
 */
export function compileFilterPattern(pattern: string): LinearPattern {
  return cachedLinearPattern(pattern, { ignoreCase: true });
}

function same(value: FactValue, expected: FactValue): boolean {
  if (typeof value === 'string' && typeof expected === 'string') return value.toLowerCase() === expected.toLowerCase();
  return value === expected;
}

/**
 * Whether the lead's facts satisfy the rule. A missing value matches only `exists: false`, so `not` of a
 * condition on a missing value holds.
 */
export function evaluateFilter(rule: FilterRule, facts: LeadFacts): boolean {
  if ('all' in rule) return rule.all.every((inner) => evaluateFilter(inner, facts));
  if ('any' in rule) return rule.any.some((inner) => evaluateFilter(inner, facts));
  if ('not' in rule) return !evaluateFilter(rule.not, facts);
  const value = facts[rule.field];
  if ('exists' in rule) return (value !== undefined) === rule.exists;
  if (value === undefined) return false;
  if ('equals' in rule) return same(value, rule.equals);
  if ('in' in rule) return rule.in.some((expected) => same(value, expected));
  if ('range' in rule) {
    const { min, max } = rule.range;
    return typeof value === 'number' && (min === undefined || value >= min) && (max === undefined || value <= max);
  }
  return typeof value === 'string' && compileFilterPattern(rule.pattern).test(value);
}
