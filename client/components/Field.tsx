/** One labelled value of a detail panel ('–' when empty). */
export function Field(props: { label: string; children: React.ReactNode }) {
  return (
    <div className="kv">
      <dt>{props.label}</dt>
      <dd>{props.children || "–"}</dd>
    </div>
  );
}
