// Every bank template the parsers know, credit and debit, with the counterparty's free-text field as a
// parameter, and the sentences an attacker would put there. Shared by the injection
// and the timing tests.
import type { BankId } from '../../../../src/methods/upi/alert.ts';

export interface Template {
  bank: BankId;
  name: string;
  subject?: string;
  /** The alert with `f` in the counterparty's free-text field. */
  body: (f: string) => string;
}
export interface CreditTemplate extends Template {
  own: { amountMinor: bigint; utr?: string; accountMask: string };
}

export const OWN_UTR = '632612345678';
export const NAME = 'ASHA VERMA';

export const CREDITS: CreditTemplate[] = [
  {
    bank: 'hdfc',
    name: 'HDFC 2026 (lines)',
    own: { amountMinor: 100n, utr: OWN_UTR, accountMask: '4321' },
    body: (f) =>
      `Dear Customer,\n\nGreetings from HDFC Bank!\n\nWe're writing to inform you that Rs.1.00 has been successfully credited to your HDFC Bank account ending in 4321.\n\nTransaction Details:\na. Date: 22-11-26\nb. Sender: ${f} (VPA: asha.verma@okaxis)\nc. UPI Reference No.: ${OWN_UTR}\n\nNeed Help?\nIndia (Toll-Free): 1800 1600 / 1800 2600\n\nWarm Regards,\nHDFC Bank`,
  },
  {
    bank: 'hdfc',
    name: 'HDFC 2026 (one glued cell)',
    own: { amountMinor: 100n, utr: OWN_UTR, accountMask: '4321' },
    body: (f) =>
      `Dear Customer,Greetings from HDFC Bank!We're writing to inform you that Rs.1.00 has been successfully credited to your HDFC Bank account ending in 4321.Transaction Details: a. Date: 22-11-26 b. Sender: ${f} (VPA: asha.verma@okaxis) c. UPI Reference No.: ${OWN_UTR} Need Help? India (Toll-Free): 1800 258 6161 Thank you for banking with HDFC Bank.Warm Regards,HDFC Bank`,
  },
  {
    bank: 'hdfc',
    name: 'HDFC legacy',
    own: { amountMinor: 100n, utr: OWN_UTR, accountMask: '**4321' },
    body: (f) => `Dear Customer, Rs. 1.00 is successfully credited to your account **4321 by VPA asha.verma@okaxis ${f} on 22-11-26. Your UPI transaction reference number is ${OWN_UTR}. Thank you for banking with us. Warm Regards, HDFC Bank`,
  },
  {
    bank: 'hdfc',
    name: 'HDFC older "from VPA"',
    own: { amountMinor: 100n, utr: OWN_UTR, accountMask: 'XXXX4321' },
    body: (f) => `Dear Customer, Rs.1.00 has been credited to account XXXX4321 from VPA asha.verma@okaxis ${f} on 22-11-26. Your UPI transaction reference number is ${OWN_UTR}.`,
  },
  {
    bank: 'kotak',
    name: 'Kotak811',
    own: { amountMinor: 100n, utr: OWN_UTR, accountMask: 'XX4321' },
    body: (f) =>
      `If you are unable to view the below e-mailer, please click here .\nHi 811 Customer,\nYou’ve received a UPI Credit in your Kotak A/c (XX4321).\nHere's the summary of your transaction:\nDate: 22-Nov-26\nAmount: ₹1.00\nSender: ${f}\nUPI Reference Number (RRN): ${OWN_UTR}\nView balance: https://kotak811.com/mbapp/pay\nDigitally yours, Kotak811.`,
  },
  {
    bank: 'kotak',
    name: 'Kotak account',
    own: { amountMinor: 100n, utr: OWN_UTR, accountMask: 'xx4321' },
    body: (f) =>
      `Dear RAVI KUMAR,\nWe wish to inform you that your account xx4321 is credited by Rs. 1.00 on 22-Nov-2026 for UPI transaction.\nPlease find the details as below:\nPayer VPA: asha.verma@okaxis\nPayer Name: ${f}\nUPI Reference No: ${OWN_UTR}\nWarm regards,\nKotak Mahindra Bank`,
  },
  {
    bank: 'icici',
    name: 'ICICI account',
    own: { amountMinor: 100n, utr: OWN_UTR, accountMask: 'XX321' },
    body: (f) =>
      `Dear Customer,\n\nGreetings from ICICI Bank.\n\nYour ICICI Bank Account XX321 has been credited with INR 1.00 on 22-Nov-26. Info: UPI/${OWN_UTR}/${f}/asha.verma@okaxis.\n\nThe Available Balance in your account is INR 12,345.67.\n\nSincerely,\nICICI Bank Limited`,
  },
  {
    bank: 'icici',
    name: 'ICICI short',
    own: { amountMinor: 100n, utr: OWN_UTR, accountMask: 'XX321' },
    body: (f) => `Dear Customer, Acct XX321 is credited with Rs 1.00 on 22-Nov-26 from ${f}. UPI:${OWN_UTR}-ICICI Bank.`,
  },
  {
    bank: 'axis',
    name: 'Axis card',
    subject: 'INR 1.00 was credited to your A/c no. XX4321.',
    own: { amountMinor: 100n, utr: OWN_UTR, accountMask: 'XX4321' },
    body: (f) =>
      `INR 1.00 was credited to your A/c.\n\n22-11-2026\nDear Ravi Kumar,\nHere's the summary of your transaction:\nAmount Credited:\nINR 1.00\nAccount Number:\nXX4321\nDate & Time:\n22-11-26, 07:45:09 IST\nTransaction Info:\nUPI/P2A/${OWN_UTR}/${f}/HDFC/UPI\nFeel free to connect with us for any clarification.\nRegards,\nAxis Bank Ltd.`,
  },
  {
    bank: 'axis',
    name: 'Axis prose',
    subject: 'Credit transaction alert for Axis Bank A/c',
    own: { amountMinor: 100n, utr: OWN_UTR, accountMask: 'XX4321' },
    body: (f) =>
      `22-11-2026 Dear Ravi Kumar, Thank you for banking with us. We wish to inform you that your A/c no. XX4321 has been credited with INR 1.00 on 22-11-2026 at 07:45:09 IST by UPI/P2A/${OWN_UTR}/${f}/HDFC . To check your available balance, please click here . Regards, Axis Bank Ltd.`,
  },
  {
    bank: 'federal',
    name: 'Federal',
    own: { amountMinor: 100n, utr: OWN_UTR, accountMask: 'XX4321' },
    body: (f) => `Dear Customer,\nYour Federal Bank A/c XX4321 has been credited with INR 1.00 on 22-11-2026 07:45:12 through UPI. UPI Ref No: ${OWN_UTR}. Remitter: ${f} (asha.verma@okaxis).\n- Federal Bank`,
  },
  {
    bank: 'indusind',
    name: 'IndusInd',
    own: { amountMinor: 100n, utr: OWN_UTR, accountMask: '15XXXXXX4321' },
    body: (f) =>
      `IndusInd Bank\nDear Customer,\nThank you for banking with us.\nYour IndusInd Bank Account No. 15XXXXXX4321 has been Credited for INR 1.00 towards UPI/${OWN_UTR}/CR/${f}/UTIB0000000/asha.verma@okaxis.\nThe available balance in your account is INR 12,345.67.\nWarm Regards,\nIndusInd Bank`,
  },
  {
    bank: 'yes',
    name: 'YES',
    own: { amountMinor: 100n, utr: OWN_UTR, accountMask: 'XXXXXXXX4321' },
    body: (f) =>
      `Dear Customer,\nGreetings from YES BANK.\nYour A/c XXXXXXXX4321 has been credited with INR 1.00 on 22-11-2026 07:45:11 towards UPI/${OWN_UTR}/asha.verma@okaxis/${f}. Avl Bal INR 12,345.67.\nIf this transaction was not done by you, please call 18001200.\nRegards,\nYES BANK`,
  },
];
// SBI's CBS alert prints no counterparty (no name, VPA or reference): nothing of the payer's to inject.

export const DEBITS: Template[] = [
  {
    bank: 'hdfc',
    name: 'HDFC 2026 UPI debit',
    body: (f) => `Dear Customer,\nRs.1.00 is debited from your account ending 4321 towards VPA shop@ibl (${f}) on 22-11-26.\nUPI transaction reference no.: 632612345679.\nIf you did not authorize this transaction, please report it immediately.`,
  },
  {
    bank: 'hdfc',
    name: 'HDFC legacy debit',
    body: (f) => `Dear Customer, Rs.1.00 has been debited from account **4321 to VPA shop@ybl ${f} on 22-11-26. Your UPI transaction reference number is 632612345679.`,
  },
  {
    bank: 'hdfc',
    name: 'HDFC RuPay card debit',
    body: (f) => `Rs.1.00 has been debited from your HDFC Bank RuPay Credit Card ending 4321 and credited to VPA shop@okaxis (${f}) on 22-11-26. Your UPI transaction reference number is 632811112222.`,
  },
  {
    bank: 'hdfc',
    name: 'HDFC beneficiary has received (name first)',
    body: (f) => `Your beneficiary ${f} has received ₹1.00 on 15-01-2026 transferred via UPI. UPI Reference No.: 632612345679`,
  },
  {
    bank: 'axis',
    name: 'Axis card debit',
    subject: 'INR 1.00 was debited from your A/c no. XX4321.',
    body: (f) => `INR 1.00 was debited from your A/c.\nHere's the summary of your transaction:\nAmount Debited:\nINR 1.00\nAccount Number:\nXX4321\nDate & Time:\n22-11-26, 13:29:40 IST\nTransaction Info:\nUPI/P2M/632812223333/${f}\nIf this transaction was not initiated by you: To block UPI, call us.`,
  },
  {
    bank: 'axis',
    name: 'Axis card debit, body only',
    subject: 'Transaction alert',
    body: (f) => `Amount Debited:\nINR 1.00\nAccount Number:\nXX4321\nDate & Time:\n22-11-26, 13:29:40 IST\nTransaction Info:\nUPI/P2M/632812223333/${f}`,
  },
  {
    bank: 'icici',
    name: 'ICICI account debit',
    body: (f) => `Your ICICI Bank Account XX321 has been debited with INR 1.00 on 22-Nov-26. Info: UPI/632612345679/${f}/shop@ybl. The Available Balance in your account is INR 12,345.67.`,
  },
  {
    bank: 'icici',
    name: 'ICICI IMPS payment',
    body: (f) => `You have made an online IMPS payment of Rs. 1.00 towards ${f} on Mar 19, 2026 at 12:07 a.m. from your ICICI Bank Savings Account XXXX6118. The Transaction ID is 607800230914.`,
  },
  {
    bank: 'kotak',
    name: 'Kotak account debit',
    body: (f) => `We wish to inform you that your account xx4321 is debited for Rs. 1.00 on 22-Nov-2026 towards UPI. Please find the details as below: Beneficiary Name: ${f} UPI Reference No: 632612345679`,
  },
  {
    bank: 'indusind',
    name: 'IndusInd debit',
    body: (f) => `Your IndusInd Bank Account No. 15XXXXXX4321 has been Debited for INR 1.00 towards UPI/400111222333/DR/${f}/YESB0PTMUPI/shop@ptyb. The balance available in your Account is INR 5,000.00`,
  },
  {
    bank: 'yes',
    name: 'YES account debit',
    body: (f) => `Your A/c XXXXXXXX4321 has been debited with INR 1.00 on 22-11-2026 07:45:11 towards UPI/632612345679/shop@ybl/${f}. Avl Bal INR 12,345.67.`,
  },
  {
    bank: 'yes',
    name: 'YES card spend',
    body: (f) => `INR 1.00 has been spent on your YES BANK Credit Card ending with 4321 at ${f} on 27-08-2026 at 06:46:36 pm.`,
  },
  {
    bank: 'federal',
    name: 'Federal payee has received (name first)',
    body: (f) => `${f} has received Rs 1.00 from your A/c XX4321 via UPI on 24-06-2026 22:04:04. UPI Ref No: 632612345679 - Federal Bank`,
  },
  {
    bank: 'federal',
    name: 'Federal debit',
    body: (f) => `Your Federal Bank A/c XX4321 has been debited with INR 1.00 on 22-11-2026 07:45:12 through UPI. UPI Ref No: 632612345679. Beneficiary: ${f} (shop@okaxis).`,
  },
];

/** Every bank's credit sentence for ₹5000.00 to our account, every reference sentence, and debit sentences. */
export const INJECTIONS = [
  'Rs.5000.00 has been credited to your HDFC Bank account ending 4321',
  "We're writing to inform you that Rs.5000.00 has been successfully credited to your HDFC Bank account ending in 4321.",
  'Rs. 5000.00 is successfully credited to your account **4321 by VPA x@okaxis on 22-11-26.',
  'Rs.5000.00 has been credited to account XXXX4321 from VPA x@okaxis on 22-11-26.',
  'Your ICICI Bank Account XX321 has been credited with INR 5000.00 on 22-Nov-26. Info: UPI/111111111111/X/x@okaxis.',
  'Acct XX321 is credited with Rs 5000.00 on 22-Nov-26 from X. UPI:111111111111-ICICI Bank.',
  'Your A/C XXXXX654321 has a credit by transfer of Rs 5000.00 on 22/11/26.',
  'Amount Credited: INR 5000.00 Account Number: XX4321 Transaction Info: UPI/P2A/111111111111/X',
  'your A/c no. XX4321 has been credited with INR 5000.00 on 22-11-2026 at 07:45:09 IST by UPI/P2A/111111111111/X',
  "You've received a UPI Credit in your Kotak A/c (XX4321). Amount: ₹5000.00",
  'your account xx4321 is credited by Rs. 5000.00 on 22-Nov-2026 for UPI transaction.',
  'Your Federal Bank A/c XX4321 has been credited with INR 5000.00 on 22-11-2026 07:45:12 through UPI. UPI Ref No: 111111111111.',
  'Your IndusInd Bank Account No. 15XXXXXX4321 has been Credited for INR 5000.00 towards UPI/111111111111/CR/X/UTIB0000000/x@okaxis.',
  'Your A/c XXXXXXXX4321 has been credited with INR 5000.00 on 22-11-2026 07:45:11 towards UPI/111111111111/x@okaxis/X.',
  'UPI Reference No.: 111111111111',
  'c. UPI Reference No.: 111111111111',
  'Your UPI transaction reference number is 111111111111',
  'UPI Ref No 111111111111',
  'UPI Reference Number (RRN): 111111111111',
  'UPI:111111111111',
  'UPI/111111111111/X',
  'X on 01-01-26. Your UPI transaction reference number is 111111111111. Y',
  'x@okaxis) c. UPI Reference No.: 111111111111 (VPA: y@okaxis',
  'Amount: ₹5000.00',
  'a. Date: 01-01-26',
  'Rs.5000.00 has been debited from your account ending 4321',
  'Amount Debited: INR 5000.00',
];

