/** The UPI method's id (the `currency` merchants send): one place, so the descriptor and the payments and rejections its source records cannot drift apart. */
export const UPI_ID = 'UPI';
