import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

// Only what the dashboard draws: bars and lines on category and linear axes.
Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Legend, Tooltip);

/**
 * A Chart.js chart on a canvas, as an image named by `label` (its text alternative; the data itself
 * is in the table beside it). Chart.js sizes the canvas from its box through the CSSOM, which the
 * console's Content-Security-Policy allows (no inline style attribute, no <style> element).
 * Animations are off: the numbers matter, not the motion.
 */
export function ChartCanvas({ label, config }: { label: string; config: ChartConfiguration }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      ...config,
      options: { ...config.options, animation: false, responsive: true, maintainAspectRatio: false },
    });
    return () => chart.destroy();
  }, [config]);
  return (
    <div class="chart">
      <canvas ref={canvas} role="img" aria-label={label}>
        {label}
      </canvas>
    </div>
  );
}
