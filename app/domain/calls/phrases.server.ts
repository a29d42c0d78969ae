/**
 * The phrase-book entries an expert chose, in the person's language (decision 0081), as a call
 * reads them.
 */
export async function phraseTextsFor(ids: string[], locale: string): Promise<string[]> {
  void ids;
  void locale;
  return [];
}
