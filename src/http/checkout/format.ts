// The checkout's amount text lives in the domain: notifications print amounts the same way.
export { groupIndian, shownAmount, type ShownAmount } from '../../domain/amount-text.ts';
