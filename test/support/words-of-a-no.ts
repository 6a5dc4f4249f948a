/**
 * What a person-facing text about an expired (or dismissed) hold never says: nobody refused
 * anything, nobody said no; the time ran out, or the question was closed unanswered.
 */
export const WORDS_OF_A_NO = /reject|refus|denied|declin|said no/i;
