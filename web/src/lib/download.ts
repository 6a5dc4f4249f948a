/**
 * Saves `blob` as a file named `name`, through a link the page clicks itself: the API's
 * exports need the bearer token, so a plain link to them would be refused.
 */
export function saveBlob(blob: Blob, name: string): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}
