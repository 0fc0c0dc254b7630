/** How payd asks its questions; @inquirer/prompts by default, a script in tests. */
export interface Prompter {
  input(o: { message: string; default?: string; required?: boolean; validate?: (s: string) => boolean | string }): Promise<string>;
  confirm(o: { message: string; default?: boolean }): Promise<boolean>;
  number(o: { message: string; default?: number; min?: number; max?: number; required?: boolean }): Promise<number | undefined>;
  select<T extends string>(o: { message: string; choices: { name: string; value: T }[]; default?: T }): Promise<T>;
}
