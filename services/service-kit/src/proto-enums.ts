/**
 * Between a closed set's lower-case names ('half_open'), as storage, logs and the CLI spell them, and
 * its proto enum (CIRCUIT_STATE_HALF_OPEN = 3), whose values carry the enum's prefix.
 */
export interface EnumNames<E extends number> {
  /** The enum value of a name; the _UNSPECIFIED value (0) for a name the enum lacks. */
  valueOf(name: string): E;
  /** The name of a value; undefined for _UNSPECIFIED and values this build does not know. */
  nameOf(value: E): string | undefined;
  /** Every name but _UNSPECIFIED, in declaration order. */
  readonly names: readonly string[];
}

export function enumNames<E extends number>(values: Record<string, E | string>, prefix: string): EnumNames<E> {
  const unspecified = `${prefix}UNSPECIFIED`;
  const names = Object.keys(values).filter(
    (key) => key.startsWith(prefix) && key !== unspecified && typeof values[key] === 'number',
  );
  return {
    valueOf: (name) => {
      const value = values[prefix + name.toUpperCase()];
      return (typeof value === 'number' ? value : 0) as E;
    },
    nameOf: (value) => {
      const key = values[value];
      return typeof key === 'string' && key.startsWith(prefix) && key !== unspecified
        ? key.slice(prefix.length).toLowerCase()
        : undefined;
    },
    names: names.map((key) => key.slice(prefix.length).toLowerCase()),
  };
}
