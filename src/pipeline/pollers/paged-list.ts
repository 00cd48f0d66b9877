/**
 * Every item of a list the API serves in numbered pages (trigger and recurring orders), read so
 * that none is missed. Pages are read one call after another, seconds apart under the request
 * budget, and the list moves meanwhile: an order that closes on page 1 after it was read pulls the
 * first order of page 2 onto page 1, where nobody reads it; a strategy that finds its order
 * absent takes it for filled, or sold, and forgets the holding. So a list of several pages is
 * read again up to its last page, and kept only when no page moved (and the page count held);
 * otherwise the whole read is made again, a few times, then the read fails (the last snapshot
 * stays, and the strategies judge it by its age). A list longer than `maxPages` fails too, rather
 * than be stored as if the orders beyond did not exist.
 */
export async function readAllPages<T>(readPage: (page: number) => Promise<{ readonly items: readonly T[]; readonly totalPages: number }>, keyOf: (item: T) => string, maxPages: number): Promise<T[]> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const first = await readPage(1);
    const total = Math.max(1, first.totalPages);
    if (total > maxPages) throw new PagedListUnreadable(`the list has ${total} pages, more than the ${maxPages} a read takes: stored in part, orders beyond would look absent`);
    const pages = [first.items];
    for (let page = 2; page <= total; page++) pages.push((await readPage(page)).items);
    if (total === 1) return [...first.items];
    let moved = false;
    for (let page = 1; page < total && !moved; page++) {
      const again = await readPage(page);
      moved = again.totalPages !== first.totalPages || !sameKeys(again.items, pages[page - 1]!, keyOf);
    }
    if (!moved) return pages.flat();
  }
  throw new PagedListUnreadable(`the list moved while its pages were read, ${ATTEMPTS} times in a row`);
}

const ATTEMPTS = 3;

function sameKeys<T>(a: readonly T[], b: readonly T[], keyOf: (item: T) => string): boolean {
  return a.length === b.length && a.every((item, i) => keyOf(item) === keyOf(b[i]!));
}

/** A paged list that could not be read whole: the read fails, and the snapshot before it stays. */
class PagedListUnreadable extends Error {
  override readonly name = 'PagedListUnreadable';
  readonly kind = 'paged_list_unreadable';
}
