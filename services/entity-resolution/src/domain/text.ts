/** Text folding shared by every normaliser: accents, case, punctuation, whitespace. */

/** Lower case, accents folded (é → e, ß → ss), `&` → `and`, punctuation to spaces, runs of spaces collapsed. */
export function fold(raw: string): string {
  return (
    raw
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/ß/g, 'ss')
      .replace(/[æÆ]/g, 'ae')
      .replace(/[øØ]/g, 'o')
      .replace(/[łŁ]/g, 'l')
      .toLowerCase()
      .replace(/&/g, ' and ')
      // Apostrophes join (O'Brien → obrien); every other punctuation mark separates.
      .replace(/['’`]/g, '')
      .replace(/[^a-z0-9]+/g, ' ')
      .trim()
  );
}

export function tokens(folded: string): string[] {
  return folded ? folded.split(' ') : [];
}
