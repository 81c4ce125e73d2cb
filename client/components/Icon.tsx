/**
 * The app's line icons (24 px grid, drawn with currentColor): one set instead of emoji or
 * rare symbols, which render as empty boxes where the phone's font lacks them (the PIN pad's
 * options and delete keys too).
 */
const PATHS = {
  menu: "M4 6h16M4 12h16M4 18h16",
  refresh: "M20 11a8 8 0 1 0-2.3 5.7M20 4v7h-7",
  receipt: "M6 3h12v18l-3-2-3 2-3-2-3 2zM9 8h6M9 12h6",
  flip: "M4 8h13l-3-3M20 16H7l3 3",
  more: "M12 5h.01M12 12h.01M12 19h.01",
  options: "M4 6h9m4 0h3M4 12h3m4 0h9M4 18h11m4 0h1M15 4v4M9 10v4M17 16v4",
  backspace: "M21 5H9l-6 7 6 7h12zM17 9l-6 6M11 9l6 6",
} as const;
export type IconName = keyof typeof PATHS;

export function Icon(props: { name: IconName; size?: number; className?: string }) {
  const size = props.size ?? 22;
  return (
    <svg
      className={`icon${props.className ? ` ${props.className}` : ""}`}
      width={size}
      height={size}
      viewBox="0 0 24 24"
      aria-hidden="true"
    >
      <path
        d={PATHS[props.name]}
        fill="none"
        stroke="currentColor"
        strokeWidth={props.name === "more" ? 3 : 2}
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
