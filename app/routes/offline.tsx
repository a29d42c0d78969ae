// Placeholder for the offline screen (issue 45): the lead's route replaces this body.
export default function Offline() {
  return (
    <main id="main" className="mx-auto w-full max-w-4xl flex-1 px-4 py-10">
      <h1 className="text-3xl font-bold">Offline</h1>
    </main>
  );
}
